// The zone of a link-local IPv6 printer address (fe80::1%eth0) names the network interface that reaches it.
// Node (libuv) quietly turns a zone it cannot resolve into no interface, and connect then fails with a bare
// EINVAL: the zone is checked against this machine's interfaces first, so the message can say which exist.
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/** This machine's interfaces as os.networkInterfaces() lists them (by name; only those that are up). */
export type Interfaces = NodeJS.Dict<Pick<NetworkInterfaceInfo, 'internal'>[]>;

/** The zone of an IPv6 host (fe80::1%eth0 → eth0), or undefined when it names none. */
export function zoneOf(host: string): string | undefined {
  const at = host.indexOf('%');
  return at >= 0 && host.includes(':') ? host.slice(at + 1) : undefined;
}

/**
 * Why a host's zone cannot be used on this machine, in words, or undefined when it can (as far as can be told
 * without connecting) or the host has none. libuv reads a zone as an interface name on Unix-likes
 * (if_nametoindex: "%2" is no interface there, even when some interface's index is 2) and as an index on
 * Windows (atoi): a number is left to connect on Windows, whose indexes os.networkInterfaces() does not give.
 */
export function zoneProblem(host: string, interfaces: Interfaces = networkInterfaces(), platform: NodeJS.Platform = process.platform): string | undefined {
  const zone = zoneOf(host);
  if (zone === undefined || Object.hasOwn(interfaces, zone)) return undefined;
  if (/^\d+$/.test(zone)) {
    if (platform === 'win32') return undefined;
    return `the zone "%${zone}" is a number, and on this system a zone names the network interface (as %eth0 does), not its index; ${interfacesText(interfaces)}`;
  }
  return `the zone "%${zone}" names a network interface this machine does not have (or that is down); ${interfacesText(interfaces)}`;
}

/** What connect's EINVAL means for a host with a zone that passed zoneProblem: the interface was refused all the same. */
export function zoneRefused(host: string, interfaces: Interfaces = networkInterfaces()): string {
  return `the system refused the network interface its zone "%${zoneOf(host)}" names (EINVAL); ${interfacesText(interfaces)}`;
}

/**
 * The hint for a zone that cannot be used: the same address through one of this machine's interfaces (the first
 * that is not loopback), or, on Windows, through an interface's index; for a profile's printer (`printerName`),
 * as the `ship config set` that fixes it.
 */
export function zoneHint(
  host: string,
  port: number,
  printerName?: string,
  interfaces: Interfaces = networkInterfaces(),
  platform: NodeJS.Platform = process.platform,
): string {
  let how: string;
  let zone: string;
  if (platform === 'win32') {
    how = 'give the index of the interface the printer is on (netsh interface ipv6 show interfaces lists them, as Idx)';
    zone = '12';
  } else {
    const names = Object.keys(interfaces);
    how = `name the interface the printer is on (${platform === 'linux' ? 'ip -6 addr' : 'ifconfig'} lists them)`;
    zone = names.find((n) => interfaces[n]?.some((a) => !a.internal)) ?? names[0] ?? 'eth0';
  }
  const url = `tcp://[${host.slice(0, host.indexOf('%'))}%${zone}]:${port}`;
  return `${how}, e.g. ${printerName ? `ship config set printers.${printerName} ${url}` : url}`;
}

/** The interfaces, briefly: a machine with many (containers, VPNs) would bury the message. */
function interfacesText(interfaces: Interfaces): string {
  const names = Object.keys(interfaces);
  if (names.length === 0) return 'this machine has no network interface up';
  const shown = names.slice(0, 8).join(', ');
  return `this machine's interfaces: ${shown}${names.length > 8 ? `, … (${names.length} in all)` : ''}`;
}
