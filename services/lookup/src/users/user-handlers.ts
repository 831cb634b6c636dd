/** gRPC handlers of the user RPCs: translate messages, nothing else. */
import { actorOf, requirePrincipal } from '@tix/kit';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import { toUserMessage } from './user-mapper.js';
import type { UserService } from './user-service.js';

/** ListUsers, GetUsers, CreateUser, UpdateUser, ChangePassword, AuthenticatePassword and GetAssistantUser. */
export function userHandlers(
  users: UserService,
): Pick<
  LookupHandlers,
  | 'ListUsers'
  | 'GetUsers'
  | 'CreateUser'
  | 'UpdateUser'
  | 'ChangePassword'
  | 'AuthenticatePassword'
  | 'GetAssistantUser'
> {
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

    // Who may change what is the service's rule (an admin or the CLI anything, a user their own name).
    async UpdateUser(request, context) {
      const user = await users.updateUser(
        request.id,
        {
          ...(request.name === undefined ? {} : { name: request.name }),
          ...(request.role === undefined ? {} : { role: request.role }),
          ...(request.is_active === undefined ? {} : { isActive: request.is_active }),
          ...(request.password === undefined ? {} : { password: request.password }),
        },
        context.principal,
      );
      return toUserMessage(user);
    },

    async ChangePassword(request, context) {
      const principal = requirePrincipal(context.principal);
      return toUserMessage(
        await users.changePassword(
          principal.user_id,
          request.current_password,
          request.new_password,
          actorOf(principal),
        ),
      );
    },

    // Any caller: it is how the ai service learns the id it acts as.
    async GetAssistantUser() {
      return toUserMessage(await users.assistantUser());
    },

    async AuthenticatePassword(request) {
      return toUserMessage(await users.authenticatePassword(request.email, request.password));
    },
  };
}
