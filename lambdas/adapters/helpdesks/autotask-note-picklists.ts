import { isJsonObject } from './helpdesk-http.ts';

/**
 * The two picklist values a ticket note needs, read from an instance's own field definitions
 * (`GET /TicketNotes/entityInformation/fields`, Autotask REST API, "Entity information": each field
 * with its `picklistValues`, each value with `value`, `label`, `isDefaultValue` and `isActive`).
 * Picklist values are set per instance, so none is taken for granted:
 * - publish: the value labelled **All Autotask Users**, which Autotask documents as the one whose
 *   notes customers see ("Using notes in Autotask": notes published to All Autotask Users are
 *   visible to customers; internal ones never are). An instance without it (or with it inactive)
 *   gets no reply, rather than one posted where the customer cannot see it.
 * - noteType: only a category ("Note types": they do little beyond search filters), so the
 *   instance's default one; else 1, the value Autotask's own REST Postman collection creates ticket
 *   notes with; when neither is active the reply is not posted either.
 */

/** The publish label whose notes the customer sees, compared without case or surrounding space. */
export const CUSTOMER_VISIBLE_PUBLISH = 'all autotask users';
const FALLBACK_NOTE_TYPE = 1;

type PicklistValue = { value: number; label: string; isDefault: boolean };

/** The active values of one picklist field; values that are not whole numbers name nothing a note can take. */
const activeValues = (fields: unknown[], name: string): PicklistValue[] => {
  const field = fields.find((candidate) => isJsonObject(candidate) && candidate.name === name);
  const values = isJsonObject(field) && Array.isArray(field.picklistValues) ? field.picklistValues : [];
  return values.flatMap((entry) => {
    if (!isJsonObject(entry) || entry.isActive === false || typeof entry.value !== 'string' || !/^[0-9]{1,9}$/.test(entry.value)) return [];
    return [{ value: Number(entry.value), label: typeof entry.label === 'string' ? entry.label : '', isDefault: entry.isDefaultValue === true }];
  });
};

/** The note's `publish` and `noteType`, or null when the answer does not hold them as described above. */
export const notePicklistValuesOf = (body: unknown): { publish: number; noteType: number } | null => {
  const fields = isJsonObject(body) && Array.isArray(body.fields) ? body.fields : null;
  if (fields === null) return null;
  const publish = activeValues(fields, 'publish').filter((entry) => entry.label.trim().toLowerCase() === CUSTOMER_VISIBLE_PUBLISH);
  const noteTypes = activeValues(fields, 'noteType');
  const noteType = noteTypes.find((entry) => entry.isDefault) ?? noteTypes.find((entry) => entry.value === FALLBACK_NOTE_TYPE);
  // Two values under the one label would leave the choice to chance: neither is taken.
  if (publish.length !== 1 || noteType === undefined) return null;
  return { publish: publish[0]!.value, noteType: noteType.value };
};
