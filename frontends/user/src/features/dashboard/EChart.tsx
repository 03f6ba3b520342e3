import { useEffect, useRef } from 'react';
import { useThemeMode } from '@console/kit';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

// Only the pieces the dashboard draws: about a third of the full ECharts bundle, in this page's chunk only.
echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, AriaComponent, CanvasRenderer]);

export type ChartOption = echarts.EChartsCoreOption;

/**
 * One ECharts instance bound to a div: created on mount (again when the theme flips, since ECharts
 * themes are fixed at init), resized with its box, disposed on unmount. `aria` describes the data in
 * the div's aria-label, for screen readers and for tests.
 */
export function EChart({ option, height = 320, testId }: { option: ChartOption; height?: number; testId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const [theme] = useThemeMode();
  const dark = theme === 'dark';

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const instance = echarts.init(element, dark ? 'dark' : undefined);
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, [dark]);

  useEffect(() => {
    chart.current?.setOption({ backgroundColor: 'transparent', aria: { enabled: true }, ...option }, { notMerge: true });
  }, [option, dark]);

  return <div ref={host} style={{ width: '100%', height }} data-testid={testId} />;
}
