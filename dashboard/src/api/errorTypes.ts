import type { components } from './schema.ts';

/** An error's `details`: the API's closed catalogue of reasons, with the field and params, for wording it here. */
export type ErrorDetails = components['schemas']['ErrorEnvelope']['error']['details'];
export type ErrorReason = ErrorDetails['reason'];
