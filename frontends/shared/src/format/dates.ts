const pad = (n: number) => String(n).padStart(2, '0');

/** Unix seconds -> "2025-01-31 13:05:09" in the browser's time zone. */
export function formatTimestamp(seconds: number): string {
  if (!seconds || seconds <= 0) return '-';
  const d = new Date(seconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function toUnixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
