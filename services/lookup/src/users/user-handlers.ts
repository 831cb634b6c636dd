/** gRPC handlers of the user RPCs: translate messages, nothing else. */
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import { toUserMessage } from './user-mapper.js';
import type { UserService } from './user-service.js';

/** ListUsers, GetUsers, CreateUser and AuthenticatePassword over the user service. */
export function userHandlers(
  users: UserService,
): Pick<LookupHandlers, 'ListUsers' | 'GetUsers' | 'CreateUser' | 'AuthenticatePassword'> {
  return {
    async ListUsers(request) {
      return { users: (await users.listUsers(request.active_only)).map(toUserMessage) };
    },

    async GetUsers(request) {
      return { users: (await users.getUsers(request.ids)).map(toUserMessage) };
    },

    async CreateUser(request, context) {
      requireAdminCaller(context);
      const user = await users.createUser({
        name: request.name,
        email: request.email,
        role: request.role,
        ...(request.password === undefined ? {} : { password: request.password }),
      });
      return toUserMessage(user);
    },

    async AuthenticatePassword(request) {
      return toUserMessage(await users.authenticatePassword(request.email, request.password));
    },
  };
}
