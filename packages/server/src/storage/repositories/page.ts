/** A window into an ordered list: rows `offset` to `offset + limit - 1`. */
export interface PageWindow {
  offset: number;
  limit: number;
}

export interface PageOf<T> {
  items: T[];
  total: number;
}
