/** Orders strings by UTF-16 code unit, as `<` does: the same order on every machine, whatever its locale. */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
