const REPLACEMENT_CHARACTER = [0xef, 0xbf, 0xbd];

/**
 * A reusable UTF-8 buffer: counting encodes one regex piece at a time, and a fresh TextEncoder array per
 * piece would be most of the garbage a count makes.
 */
export class Utf8Buffer {
  bytes = new Uint8Array(1024);
  length = 0;
  /** False when the text had a lone surrogate (written as U+FFFD, as TextEncoder does). */
  wellFormed = true;

  write(text: string): void {
    if (this.bytes.length < text.length * 3) this.bytes = new Uint8Array(text.length * 3);
    const bytes = this.bytes;
    let length = 0;
    let wellFormed = true;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit < 0x80) {
        bytes[length++] = unit;
      } else if (unit < 0x800) {
        bytes[length++] = 0xc0 | (unit >> 6);
        bytes[length++] = 0x80 | (unit & 0x3f);
      } else if (unit < 0xd800 || unit > 0xdfff) {
        bytes[length++] = 0xe0 | (unit >> 12);
        bytes[length++] = 0x80 | ((unit >> 6) & 0x3f);
        bytes[length++] = 0x80 | (unit & 0x3f);
      } else {
        const low = text.charCodeAt(i + 1);
        if (unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          const codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          bytes[length++] = 0xf0 | (codePoint >> 18);
          bytes[length++] = 0x80 | ((codePoint >> 12) & 0x3f);
          bytes[length++] = 0x80 | ((codePoint >> 6) & 0x3f);
          bytes[length++] = 0x80 | (codePoint & 0x3f);
          i++;
        } else {
          for (const byte of REPLACEMENT_CHARACTER) bytes[length++] = byte;
          wellFormed = false;
        }
      }
    }
    this.length = length;
    this.wellFormed = wellFormed;
  }
}

/** Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), the rule gpt-tokenizer decodes by. */
export function isValidUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const lead = bytes[i];
    let size: number;
    let codePoint: number;
    if (lead < 0x80) {
      i++;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      size = 2;
      codePoint = lead & 0x1f;
    } else if ((lead & 0xf0) === 0xe0) {
      size = 3;
      codePoint = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      size = 4;
      codePoint = lead & 0x07;
    } else {
      return false;
    }
    if (i + size > end) return false;
    for (let j = 1; j < size; j++) {
      const next = bytes[i + j];
      if ((next & 0xc0) !== 0x80) return false;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (size === 3 && codePoint < 0x800) return false;
    if (size === 4 && (codePoint < 0x10000 || codePoint > 0x10ffff)) return false;
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) return false;
    i += size;
  }
  return true;
}
