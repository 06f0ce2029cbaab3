/// <reference lib="dom" />
import { h } from '../shared/dom.ts';

/** One tab: where it goes, what it says, and the name a page marks it by. */
export type Tab<Name extends string> = readonly [path: string, text: string, name: Name];

/** A row of links between the pages (or views) of one section, shown at the top of each, the one shown marked. */
export const tabRow = <Name extends string>(label: string, tabs: ReadonlyArray<Tab<Name>>, current: Name, id?: string) =>
  h(
    'nav',
    { id, class: 'tabs', 'aria-label': label },
    h('ul', {}, ...tabs.map(([path, text, name]) => h('li', {}, h('a', { href: path, 'aria-current': name === current ? 'page' : null }, text)))),
  );
