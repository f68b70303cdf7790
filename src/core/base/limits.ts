/** The bot's defaults for jobs at once, where a tenant's admins set none (`/setup`). */

/** Jobs one person may have running at once. */
export const DEFAULT_JOB_LIMIT = 3;
/** Jobs one person may have waiting their turn past that. */
export const DEFAULT_QUEUE_LIMIT = 10;
