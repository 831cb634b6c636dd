/** The help text of `pnpm tix`. */
import { FLEET, ROLES, SCOPES } from '@tix/protos';
import { DEFAULT_STATUSES_SPEC } from './statuses-spec.js';

export const USAGE = `Usage: pnpm tix <command> [options] [--json]

Commands:
  project create --name NAME --slug SLUG --prefix PREFIX [--statuses SPEC] [--description TEXT]
      SPEC: comma list of slug:Label[:closed]; default
      ${DEFAULT_STATUSES_SPEC}
  project update --project SLUG [--name NAME] [--description TEXT]
  status add --project SLUG --slug SLUG --label LABEL [--closed] [--position N]
      N: 0-based place in the workflow (default last)
  status update --project SLUG --slug SLUG [--label LABEL] [--closed | --open] [--position N]
  status remove --project SLUG --slug SLUG [--move-to SLUG]
      refused while live tickets are in the status, unless --move-to names where they go
  ticket-type create --project SLUG --name NAME --slug SLUG [--description TEXT] [--default] [--fields JSON]
      JSON: the field_schema array, inline
  ticket-type update --project SLUG --slug SLUG [--name NAME] [--description TEXT] [--default]
                     [--fields JSON] [--retire | --unretire]
      a field_schema that would make stored values invalid is refused with the ticket count
  user create --name NAME --email EMAIL --role ${ROLES.join('|')} [--password-stdin | --password PASS]
  user list [--all]
      active users only, unless --all
  user update --email EMAIL [--name NAME] [--role ${ROLES.join('|')}] [--activate | --deactivate] [--password-stdin]
      a role, active flag or password change ends the user's sessions
  user reset-link --email EMAIL
      a single-use link (30 minutes) for the user to set a password; APP_URL is where it points
  key create --user EMAIL --scopes LIST [--project SLUG] [--name LABEL]
      LIST: comma list of ${SCOPES.join(',')}
  key list [--user EMAIL] [--project SLUG]
  key revoke --id ID
  seed --demo [--without-tickets]
      demo projects, ticket types, users (passwords shown once), keys, and tickets with comments
      (with a resolved history the assistant suggests replies from)
  ai eval [--project SLUG] [--k N]
      the assistant's backtest, each resolved ticket looked up as if new: recall@N (default 3) of
      a ticket of the same category, and priority precision and coverage at each threshold;
      every project unless --project; asks the assistant at AI_SERVICE_ADDR (default 127.0.0.1:${FLEET.ai.grpcPort})

Options:
  --json              print exactly one JSON object on stdout (messages go to stderr)
  --password-stdin    read the password from the first line of standard input
                      (--password PASS works too, but other users of this machine can see it in ps)
  --help              show this text

The CLI talks to the running lookup service at LOOKUP_SERVICE_ADDR (default 127.0.0.1:${FLEET.lookup.grpcPort}).
Exit codes: 0 done, 1 refused by the service, 2 bad command line, 3 service unreachable (or not deployed).
`;
