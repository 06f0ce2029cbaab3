/**
 * How long a text is in characters (code points), as JSON Schema's minLength and maxLength and
 * the schemas' own limits count it: an emoji is one, not two UTF-16 units.
 */
export const characterCount = (text: string) => [...text].length;
