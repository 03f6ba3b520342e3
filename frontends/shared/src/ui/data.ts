// Heavier Semi components (tables and form controls) live behind `@console/kit/data`, a second shared
// singleton: the shell's first load does not need them, the remotes' table pages do.
export { default as Checkbox } from '@douyinfe/semi-ui/lib/es/checkbox';
export { DatePicker } from './DatePicker';
export { default as TextArea } from '@douyinfe/semi-ui/lib/es/input/textarea';
export { default as InputNumber } from '@douyinfe/semi-ui/lib/es/inputNumber';
export { default as Pagination } from '@douyinfe/semi-ui/lib/es/pagination';
export { default as Popconfirm } from '@douyinfe/semi-ui/lib/es/popconfirm';
export { default as Select } from '@douyinfe/semi-ui/lib/es/select';
export { default as SideSheet } from '@douyinfe/semi-ui/lib/es/sideSheet';
export { default as Slider } from '@douyinfe/semi-ui/lib/es/slider';
export { default as Switch } from '@douyinfe/semi-ui/lib/es/switch';
export { default as Table } from '@douyinfe/semi-ui/lib/es/table';
export type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
export { FormSheet, useSaving } from './FormSheet';
export { PagedTable } from './PagedTable';
