import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Rule = { kind: 'ip'; address: Address } | { kind: 'cidr'; range: [Address, number] };

/** The entries of an allow_ips text: one IP or CIDR per line, commas and spaces also separate. */
export function splitAllowIps(text: string | null | undefined): string[] {
  return (text ?? '')
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function normalise(address: Address): Address {
  // `::ffff:1.2.3.4` (how Node reports IPv4 clients on a dual-stack socket) is the IPv4 address.
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** Strict forms only: dotted four-part IPv4 (no `1.2.3` or octal shorthands) or IPv6. */
function parseAddress(text: string): Address | undefined {
  if (text.includes(':')) return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text) : undefined;
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : undefined;
}

function parseRule(entry: string): Rule | undefined {
  const [text, bits, extra] = entry.split('/');
  const address = text ? parseAddress(text) : undefined;
  if (!address || extra !== undefined) return undefined;
  if (bits === undefined) return { kind: 'ip', address: normalise(address) };
  const max = address.kind() === 'ipv4' ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return { kind: 'cidr', range: [address, Number(bits)] };
}

/** The first entry that is neither an IP nor a CIDR, or undefined when all are valid. */
export function invalidAllowIp(entries: string[]): string | undefined {
  return entries.find((entry) => !parseRule(entry));
}

/** A matcher for a client address; an empty list allows everyone. Unparseable client addresses are refused. */
export function allowIpMatcher(entries: string[]): (ip: string) => boolean {
  const rules = entries.map(parseRule).filter((r): r is Rule => r !== undefined);
  if (rules.length === 0) return () => true;
  return (ip: string) => {
    const parsed = parseAddress(ip);
    if (!parsed) return false;
    const client = normalise(parsed);
    return rules.some((rule) => {
      if (rule.kind === 'ip')
        return rule.address.kind() === client.kind() && rule.address.toNormalizedString() === client.toNormalizedString();
      const [range, bits] = rule.range;
      return range.kind() === client.kind() && client.match(range as never, bits);
    });
  };
}
