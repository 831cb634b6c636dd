/** Error messages every resource's request validation shares (the resources' own are beside their schemas). */

/** A JSON body that is not an object (validated as `body`). */
export const BODY_NOT_OBJECT_MESSAGE = 'Request body must be a JSON object';
