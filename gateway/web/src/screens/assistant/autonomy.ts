/** The project's autonomy (GET /ai/autonomy): kill switch, effective status, guardrails, 24 h stats. */
import { api, call } from '../../api/client';
import type { operations } from '../../generated/api';

export type Autonomy =
  operations['getAutonomy']['responses'][200]['content']['application/json']['data']['autonomy'];

export async function loadAutonomy(projectId: number): Promise<Autonomy> {
  return (await call(api.GET('/ai/autonomy', { params: { query: { project_id: projectId } } }))).autonomy;
}

const EFFECTIVE: Record<string, string> = {
  active: 'Active: acting within the guardrails',
  killed: 'Stopped by the kill switch',
  paused: 'Paused: an action type reverted too often',
  disabled: 'Shadow mode: recording predictions, doing nothing',
};

export function effectiveText(effective: string): string {
  return EFFECTIVE[effective] ?? effective;
}
