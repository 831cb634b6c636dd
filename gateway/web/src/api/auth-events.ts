/**
 * The link between the API client and the session state without an import cycle: the session
 * module registers what "signed out" does (clear the user, open sign-in keeping the route).
 */
let signedOutHandler: () => void = () => {};

export function setSignedOutHandler(handler: () => void): void {
  signedOutHandler = handler;
}

export function onSignedOut(): void {
  signedOutHandler();
}
