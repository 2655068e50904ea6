// The characters the API refuses in any request text (label-printing and data-exchange problems), in a module of
// their own: a prompt checks them as they are typed without loading the request schemas (zod) to do so.

/** The API rejects any request text holding one of these. */
export const BANNED_CHARS = /[\\^]/;
export const BANNED_CHARS_MESSAGE = 'must not contain a backslash (\\) or caret (^)';
