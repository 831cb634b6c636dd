/**
 * `pnpm tix ai eval`: the assistant's leave-one-out backtest (its Evaluate RPC) of one project, or
 * of every project. The one command that calls a service besides lookup: the assistant, at
 * AI_SERVICE_ADDR (from tix-config in Kubernetes, which is why the network policies let lookup's
 * pod call ai), where "none" means it is not deployed.
 */
import { AppError, createServiceClient, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { SERVICE_NOT_DEPLOYED, serviceAddressVariable } from '@tix/protos';
import { HOST_PORT, serviceAddressIn } from './addresses.js';
import { isTransportFailure, ServiceUnreachable, transportProblem } from './failures.js';
import { UsageError } from './parse-command.js';
import { presentEvaluation, type EvaluationsOutput } from './presenters.js';

/** A backtest looks up each of a project's resolved tickets (up to 2,000) as if new: minutes on a big one. */
const EVALUATE_DEADLINE_MS = 10 * 60_000;

export async function evaluateAssistant(
  lookup: ServiceClient<'lookup'>,
  request: { projectSlug?: string; k: number },
  env: NodeJS.ProcessEnv,
  context: OutgoingContext,
): Promise<EvaluationsOutput> {
  const variable = serviceAddressVariable('ai');
  const address = serviceAddressIn(env, 'ai');
  if (address === SERVICE_NOT_DEPLOYED)
    throw new ServiceUnreachable(`the assistant is not deployed (${variable}=${SERVICE_NOT_DEPLOYED})`);
  if (!HOST_PORT.test(address))
    throw new UsageError(`${variable} must be host:port of the ai service, got "${address}"`);

  const projects =
    request.projectSlug === undefined
      ? (await lookup.ListProjects({}, context)).projects
      : [await lookup.ResolveProject({ slug: request.projectSlug }, context)];
  const assistant = createServiceClient('ai', address, { deadlineMs: EVALUATE_DEADLINE_MS });
  try {
    const evaluations = [];
    for (const project of projects) {
      const evaluation = await assistant.Evaluate({ project_id: project.id, k: request.k }, context);
      evaluations.push(presentEvaluation(project, evaluation));
    }
    return { evaluations };
  } catch (error) {
    if (error instanceof AppError && isTransportFailure(error))
      throw new ServiceUnreachable(
        `${transportProblem(error)} the assistant at ${address} — is it running? (pnpm start)`,
      );
    throw error;
  } finally {
    assistant.close();
  }
}
