/** JSON columns are text in both dialects; these keep the (de)serialisation in one place. */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}
