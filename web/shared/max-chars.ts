/// <reference lib="dom" />
/**
 * A text field's limit in characters (code points), as the service counts them. The browser's
 * `maxlength` counts UTF-16 units, so an emoji or a rarer CJK character counts twice and a name the
 * service takes was cut short. The attribute is set to twice the limit (no text within the limit
 * reaches it), and what goes past the limit in characters is cut as `maxlength` would cut it.
 */
export const maxChars = (limit: number) => ({
  maxlength: limit * 2,
  oninput: (event: Event) => {
    const field = event.target as HTMLInputElement | HTMLTextAreaElement;
    const characters = [...field.value];
    if (characters.length > limit) field.value = characters.slice(0, limit).join('');
  },
});
