/**
 * An answer already serialised, by Postgres or by hand: `text` is exactly what
 * `JSON.stringify` of a `T` would give, so the web sends it as it is (issue 41: a history page is
 * written as JSON by Postgres, not decoded into objects only to be encoded again).
 */
export class JsonText<T> {
  /** Never set: ties the text to the type it stands for. */
  declare readonly of?: T;
  constructor(readonly text: string) {}
}
