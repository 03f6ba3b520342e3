import { lazy, Suspense, type ComponentProps } from 'react';
import type SemiDatePicker from '@douyinfe/semi-ui/lib/es/datePicker';

// The calendar, time picker and date-fns weigh ~50 kB gzip and only a few forms set a date. Loaded from
// inside the kit, the chunk belongs to the app that provides the kit, so it shares Semi's locale context.
const LazyDatePicker = lazy(() => import('@douyinfe/semi-ui/lib/es/datePicker'));

/** Semi's DatePicker, fetched the first time one is drawn. */
export function DatePicker(props: ComponentProps<typeof SemiDatePicker>) {
  return (
    <Suspense fallback={null}>
      <LazyDatePicker {...props} />
    </Suspense>
  );
}
