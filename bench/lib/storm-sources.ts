/**
 * The storm's source addresses on loopback (Linux routes all of 127.0.0.0/8 to `lo`, so any of them
 * can be bound without configuring an interface): panels on a fixed line each have their own address,
 * panels on a mobile network share their carrier's NAT addresses. One entry per panel, in panel order.
 */

/** Panel i's source: the first `panels - natPanels` own an address each (127.20.x.y), the rest share `nats` addresses (127.30.0.n). */
export function stormSources(panels: number, nats: number, natPanels: number): string[] {
  const own = panels - natPanels;
  return Array.from({ length: panels }, (_, i) => {
    if (i < own) return `127.${20 + Math.floor(i / 62_500)}.${1 + (Math.floor(i / 250) % 250)}.${1 + (i % 250)}`;
    return `127.30.0.${1 + ((i - own) % Math.max(1, nats))}`;
  });
}
