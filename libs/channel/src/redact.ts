/**
 * Removes the channel key from a provider message before it reaches the console or other_info
 * (threats K3: some providers echo the key they rejected). Multi-part keys are redacted part by part.
 */
export function redactKey(message: string, key: string): string {
  const parts = [key, ...key.split(/[|\n]/)].map((p) => p.trim()).filter((p) => p.length >= 6);
  let out = message;
  for (const part of parts.sort((a, b) => b.length - a.length)) out = out.split(part).join(`${part.slice(0, 3)}***`);
  return out;
}
