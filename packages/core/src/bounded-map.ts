/**
 * A process's memory of things it saw (tokens let in, standings decided, documents fetched):
 * a `Map` of at most `capacity` entries, where a new key set when full forgets the oldest one.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.capacity && !this.has(key)) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}
