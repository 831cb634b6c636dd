/** gRPC handlers of the password reset RPCs: translate messages, nothing else. */
import { AppError } from '@tix/kit';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import type { IssuedReset, PasswordResetService } from './password-reset-service.js';
import { toUserMessage } from './user-mapper.js';

function issuedMessage(issued: IssuedReset) {
  return {
    issued: true,
    token: issued.token,
    expires_at: issued.expiresAt.toISOString(),
    user: toUserMessage(issued.user),
  };
}

/** IssuePasswordReset (by email: public; by user id: admin only) and ResetPassword (public: the token is the credential). */
export function passwordResetHandlers(
  resets: PasswordResetService,
): Pick<LookupHandlers, 'IssuePasswordReset' | 'ResetPassword'> {
  return {
    async IssuePasswordReset(request, context) {
      if (request.user === 'user_id' && request.user_id !== undefined) {
        requireAdminCaller(context);
        return issuedMessage(await resets.issueForUser(request.user_id));
      }
      if (request.user === 'email' && request.email !== undefined) {
        const issued = await resets.issueByEmail(request.email);
        return issued ? issuedMessage(issued) : { issued: false };
      }
      throw AppError.badRequest('Give email or user_id');
    },

    async ResetPassword(request) {
      return toUserMessage(await resets.resetPassword(request.token, request.new_password));
    },
  };
}
