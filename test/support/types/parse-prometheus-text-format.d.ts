declare module 'parse-prometheus-text-format' {
  /** Parses Prometheus text exposition into metric families (name, help, type, metrics with labels and values). */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
