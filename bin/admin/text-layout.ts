/**
 * Text laid out for a terminal: tables and labelled facts. Values come from the table, where a
 * member or organisation may have typed any character, so control characters (a terminal escape
 * sequence among them) are shown as spaces, never sent to the terminal.
 */
const cell = (value: string) => value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

/** Rows under their headers, each column as wide as its widest cell; `empty` instead when there are no rows. */
export const tableText = (headers: readonly string[], rows: ReadonlyArray<readonly string[]>, empty: string, indent = '') => {
  if (rows.length === 0) return `${indent}${empty}\n`;
  const cells = [headers, ...rows].map((row) => row.map(cell));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  return cells.map((row) => indent + row.map((value, column) => value.padEnd(widths[column])).join('  ').trimEnd()).join('\n') + '\n';
};

/** `Label:  value` lines, the values lined up after the longest label. */
export const factsText = (facts: ReadonlyArray<readonly [string, string]>, indent = '') => {
  const width = Math.max(...facts.map(([label]) => label.length)) + 1;
  return facts.map(([label, value]) => `${indent}${`${label}:`.padEnd(width)}  ${cell(value)}`).join('\n') + '\n';
};
