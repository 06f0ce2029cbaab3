/**
 * Sets `key` in `map` as its newest entry, first dropping the oldest when the map already holds
 * `capacity` entries: a Map keeps its keys in the order they were set, so the first is the one set
 * longest ago. What a warm function remembers (key identities, limits, URLs, data keys) stays
 * bounded this way however many callers it serves.
 */
export const setNewest = <K, V>(map: Map<K, V>, key: K, value: V, capacity: number) => {
  map.delete(key);
  if (map.size >= capacity) map.delete(map.keys().next().value!);
  map.set(key, value);
};
