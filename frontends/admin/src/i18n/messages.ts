/** The zh messages must have exactly the keys of the en ones. */
export type Messages<T> = { [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };
