/**
 * A range of offsets handed out at random, each held by one owner. Upstream's Service allocators
 * (pkg/registry/core/service/allocator/bitmap.go, NewAllocationMapWithOffset) pick a random free
 * offset, preferring the upper band of the range so that the lower "static" band stays free for
 * values users ask for by number (KEP-3070 ServiceIPStaticSubrange, KEP-3668
 * ServiceNodePortStaticSubrange, both GA before 1.33). kube-sim does the same.
 */
export class RangeAllocator {
  private readonly owners = new Map<number, string>();

  /**
   * @param size number of offsets (0 … size-1) that may be handed out
   * @param staticBand offsets below this are handed out only when the upper band is full
   */
  constructor(
    private readonly size: number,
    private readonly staticBand: number,
    private readonly random: () => number = Math.random,
  ) {}

  ownerOf(offset: number): string | undefined {
    return this.owners.get(offset);
  }

  /** A random free offset, not in `exclude` (already picked within the same request); undefined when full. */
  pickFree(
    exclude: ReadonlySet<number>,
    usable: (offset: number) => boolean = () => true,
  ): number | undefined {
    const free = (o: number) => !this.owners.has(o) && !exclude.has(o) && usable(o);
    for (const [low, high] of [
      [this.staticBand, this.size],
      [0, this.staticBand],
    ] as const) {
      const width = high - low;
      if (width <= 0) continue;
      // A random start, then a scan that wraps round the band: random yet bounded when nearly full.
      const start = Math.floor(this.random() * width);
      for (let i = 0; i < width; i++) {
        const offset = low + ((start + i) % width);
        if (free(offset)) return offset;
      }
    }
    return undefined;
  }

  hold(offset: number, owner: string): void {
    this.owners.set(offset, owner);
  }

  /** Releases every offset `owner` holds that is not in `keep`. */
  releaseAllBut(owner: string, keep: ReadonlySet<number>): void {
    for (const [offset, who] of this.owners)
      if (who === owner && !keep.has(offset)) this.owners.delete(offset);
  }
}
