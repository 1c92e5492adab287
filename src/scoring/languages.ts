/** The languages an assessment can be given in: its items, answer labels and narratives. */
export const languages = ['en', 'fr'] as const;

export type Language = (typeof languages)[number];
