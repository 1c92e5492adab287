// How the element lays out the 76 items: all in a column (`list`), or one statement per screen (`single`). The
// `layout` attribute decides; without it, the element's own width does: it is often in a column narrower than the
// window (a sidebar, a two-column page on a tablet), and the room it has is what decides whether five answers fit
// beside a statement. Free of DOM types.

export type Layout = 'list' | 'single';

/** Below this width (CSS px, the element's border box) the element shows one statement at a time. */
const SINGLE_BELOW = 600;

/** The layout the attribute names (`list`, `single`, in any case), else the one the width calls for; 0 is no width yet. */
export function chooseLayout(attribute: string | null, width: number): Layout {
  const named = attribute?.trim().toLowerCase();
  if (named === 'list' || named === 'single') return named;
  // Not laid out yet (display: none, not in the page): the list, until the element has a width.
  return width > 0 && width < SINGLE_BELOW ? 'single' : 'list';
}
