/** A figure to three decimals: the same inputs give the same figure on every machine, whatever its last bits. */
export const toThousandths = (value: number): number => Math.round(value * 1000) / 1000;
