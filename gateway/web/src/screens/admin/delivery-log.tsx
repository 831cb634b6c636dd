/**
 * A webhook's delivery log (GET /webhooks/{id}/deliveries, newest first, paged): each delivery's
 * event, state and attempts (response code or error, duration), and Redeliver (POST
 * .../deliveries/{deliveryId}/redeliver: a new delivery of the same event, pending at first).
 */
import { useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { components } from '../../generated/api';
import type { Project } from '../../projects';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { ColumnHeads } from '../../ui/table';
import { toast } from '../../ui/toast';
import { formatTime, useLoaded } from './use-loaded';

type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['Delivery'];
const PER_PAGE = 20;

function lastAttempt(delivery: Delivery): string {
  const attempt = delivery.attempts[delivery.attempts.length - 1];
  if (!attempt) return 'No attempt yet';
  const outcome =
    attempt.response_code === null ? (attempt.error ?? 'no answer') : `HTTP ${attempt.response_code}`;
  return `${outcome} in ${attempt.duration_ms} ms`;
}

export function DeliveryLog({ project, webhook }: { project: Project; webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const [redelivering, setRedelivering] = useState<string | null>(null);
  const log = useLoaded(
    () =>
      call(
        api.GET('/webhooks/{id}/deliveries', {
          params: { path: { id: webhook.id }, query: { project_id: project.id, page, per_page: PER_PAGE } },
        }),
      ),
    [project.id, webhook.id, page],
  );

  async function redeliver(delivery: Delivery) {
    setRedelivering(delivery.id);
    try {
      await call(
        api.POST('/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
          params: { path: { id: webhook.id, deliveryId: delivery.id }, query: { project_id: project.id } },
        }),
      );
      toast(`${delivery.event} queued again.`);
      setPage(1);
      log.reload();
    } catch (error) {
      showError(error);
    } finally {
      setRedelivering(null);
    }
  }

  if (!log.data) return <Loading what="the delivery log" />;
  const { deliveries, pagination } = log.data;
  return (
    <div class="admin-delivery-log" data-log-ready="true">
      <div class="admin-inline">
        <Button onClick={() => log.reload()}>Refresh</Button>
        <span class="muted" role="status">
          {pagination.total === 1 ? '1 delivery' : `${pagination.total} deliveries`}
        </span>
      </div>
      {deliveries.length === 0 ? (
        <EmptyState title="Nothing delivered yet: deliveries appear when a subscribed event happens." />
      ) : (
        <div class="admin-table-wrap">
          <table class="admin-table" aria-label={`Deliveries to ${webhook.url}`}>
            <ColumnHeads columns={['Event', 'State', 'Attempts', 'Created', 'Actions']} />
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id} data-delivery={delivery.id}>
                  <th scope="row">{delivery.event}</th>
                  <td>
                    <span class={`admin-delivery-${delivery.status}`}>{delivery.status}</span>
                  </td>
                  <td>
                    {delivery.attempts.length === 0 ? (
                      'No attempt yet'
                    ) : (
                      <details>
                        <summary>
                          {delivery.attempts.length} · {lastAttempt(delivery)}
                        </summary>
                        <ol class="admin-attempts">
                          {delivery.attempts.map((attempt) => (
                            <li key={attempt.number}>
                              {formatTime(attempt.attempted_at)}:{' '}
                              {attempt.response_code === null
                                ? attempt.error
                                : `HTTP ${attempt.response_code}`}{' '}
                              ({attempt.duration_ms} ms)
                            </li>
                          ))}
                        </ol>
                      </details>
                    )}
                  </td>
                  <td>{formatTime(delivery.created_at)}</td>
                  <td>
                    <Button
                      kind="quiet"
                      busy={redelivering === delivery.id}
                      aria-label={`Redeliver ${delivery.event} of ${formatTime(delivery.created_at)}`}
                      onClick={() => void redeliver(delivery)}
                    >
                      Redeliver
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pagination.total_pages > 1 && (
        <nav class="admin-inline" aria-label="Delivery pages">
          <Button disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </Button>
          <span>
            Page {pagination.page} of {pagination.total_pages}
          </span>
          <Button disabled={page >= pagination.total_pages} onClick={() => setPage(page + 1)}>
            Older
          </Button>
        </nav>
      )}
    </div>
  );
}
