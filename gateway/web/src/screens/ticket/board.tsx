/**
 * The board: one lane per status of the project, in workflow order (the board's keys: custom
 * statuses included), with exact counts and the lane limit. Agents and above move tickets by drag
 * and drop (SortableJS) or by the keyboard "Move" menu; a move is shown at once and rolled back when
 * the server refuses it (PATCH /tickets/{id}/status with after_id or before_id). Viewers get neither.
 * Filters: priority and assignee, kept in the query.
 */
import { TICKET_PRIORITIES } from '@tix/contract';
import Sortable from 'sortablejs';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { components, operations } from '../../generated/api';
import { currentProject, type Project } from '../../projects';
import { setQuery } from '../../router';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { EmptyState, Loading } from '../../ui/empty-state';
import type { ScreenProps } from '../screen';
import { ticketPath } from './model';
import './board.css';
import { Options, optionsOf } from '../../ui/field';

type Ticket = components['schemas']['Ticket'];
type User = components['schemas']['User'];
type Board = components['schemas']['Board'];
type Priority = NonNullable<NonNullable<operations['getBoard']['parameters']['query']>['priority']>;

const PRIORITIES = TICKET_PRIORITIES satisfies readonly Priority[];
/** Cards per lane; the counts stay exact, and a lane holding more says so. */
export const LANE_LIMIT = 200;

/** The board after moving `ticketId` to `toIndex` of `toLane` (pure; the original is unchanged). */
export function moveOnBoard(board: Board, ticketId: number, toLane: string, toIndex: number): Board {
  const lanes: Record<string, Ticket[]> = {};
  let moved: Ticket | undefined;
  let fromLane: string | undefined;
  for (const [key, tickets] of Object.entries(board.lanes)) {
    lanes[key] = tickets.filter((ticket) => {
      if (ticket.id !== ticketId) return true;
      moved = ticket;
      fromLane = key;
      return false;
    });
  }
  const target = lanes[toLane];
  if (!moved || fromLane === undefined || !target) return board;
  target.splice(Math.max(0, Math.min(toIndex, target.length)), 0, { ...moved, status: toLane });
  const counts = { ...board.counts };
  if (fromLane !== toLane) {
    counts[fromLane] = (counts[fromLane] ?? 1) - 1;
    counts[toLane] = (counts[toLane] ?? 0) + 1;
  }
  return { lanes, counts };
}

/** The neighbour the server places the ticket by: the one before it, else the one after it. */
export function placement(lane: Ticket[], index: number): { after_id?: number; before_id?: number } {
  const before = lane[index - 1];
  if (before) return { after_id: before.id };
  const after = lane[index + 1];
  return after ? { before_id: after.id } : {};
}

function laneLabel(project: Project, key: string): string {
  return project.statuses.find((status) => status.slug === key)?.label ?? key;
}

interface MoveTarget {
  ticket: Ticket;
  lane: string;
  index: number;
}

function MoveDialog({
  target,
  board,
  project,
  onMove,
  onClose,
}: {
  target: MoveTarget | null;
  board: Board;
  project: Project;
  onMove: (lane: string, index: number) => void;
  onClose: () => void;
}) {
  const laneKeys = Object.keys(board.lanes);
  const laneLength = target ? (board.lanes[target.lane]?.length ?? 0) : 0;
  return (
    <Dialog
      open={target !== null}
      title={target ? `Move ${target.ticket.ticket_number} to…` : ''}
      onClose={onClose}
    >
      {target && (
        <div class="move-menu">
          <ul class="move-options">
            {laneKeys
              .filter((key) => key !== target.lane)
              .map((key) => (
                <li key={key}>
                  <Button onClick={() => onMove(key, 0)}>{laneLabel(project, key)}</Button>
                </li>
              ))}
          </ul>
          <div class="dialog-actions">
            <Button disabled={target.index === 0} onClick={() => onMove(target.lane, target.index - 1)}>
              Up in {laneLabel(project, target.lane)}
            </Button>
            <Button
              disabled={target.index >= laneLength - 1}
              onClick={() => onMove(target.lane, target.index + 1)}
            >
              Down in {laneLabel(project, target.lane)}
            </Button>
            <Button kind="quiet" onClick={onClose}>
              Cancel
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

function Card({
  ticket,
  project,
  assignee,
  canMove,
  onMoveMenu,
}: {
  ticket: Ticket;
  project: Project;
  assignee: User | undefined;
  canMove: boolean;
  onMoveMenu: () => void;
}) {
  return (
    <li class="card" data-id={ticket.id}>
      <div class="card-top">
        <span class="card-number">{ticket.ticket_number}</span>
        <span class={`priority priority-${ticket.priority}`}>{ticket.priority_label}</span>
      </div>
      <a class="card-title" href={ticketPath(ticket.id, project)}>
        {ticket.title}
      </a>
      <div class="card-bottom">
        <span class="muted">{assignee ? assignee.name : 'Unassigned'}</span>
        {canMove && (
          <Button kind="quiet" aria-label={`Move ${ticket.ticket_number}`} onClick={onMoveMenu}>
            Move…
          </Button>
        )}
      </div>
    </li>
  );
}

function Lane({
  project,
  laneKey,
  label,
  tickets,
  count,
  users,
  canMove,
  onDrop,
  onMoveMenu,
}: {
  project: Project;
  laneKey: string;
  label: string;
  tickets: Ticket[];
  count: number;
  users: Map<number, User>;
  canMove: boolean;
  onDrop: (ticketId: number, toLane: string, toIndex: number) => void;
  onMoveMenu: (ticket: Ticket, index: number) => void;
}) {
  const listRef = useRef<HTMLOListElement>(null);
  // Sortable keeps the first handler it is given; the ref always holds the current one.
  const dropRef = useRef(onDrop);
  dropRef.current = onDrop;
  useEffect(() => {
    if (!canMove || !listRef.current) return;
    const sortable = Sortable.create(listRef.current, {
      group: 'board',
      animation: 120,
      // Pointer events rather than the HTML5 drag API: the same on touch screens, mice and test drivers.
      forceFallback: true,
      draggable: '.card',
      filter: 'button, a',
      preventOnFilter: false,
      onEnd(event) {
        const id = Number(event.item.dataset.id);
        const toLane = event.to.dataset.lane;
        const toIndex = event.newDraggableIndex;
        // Put the node back where Sortable took it from: Preact owns the DOM and re-renders the move.
        event.item.remove();
        event.from.insertBefore(event.item, event.from.children[event.oldIndex ?? 0] ?? null);
        if (toLane === undefined || toIndex === undefined) return;
        if (event.from === event.to && event.oldDraggableIndex === toIndex) return;
        dropRef.current(id, toLane, toIndex);
      },
    });
    return () => sortable.destroy();
  }, [canMove]);
  const headingId = `lane-${laneKey}`;
  return (
    <section class="lane" aria-labelledby={headingId}>
      <h2 id={headingId} class="lane-title">
        {label}{' '}
        <span class="count" aria-label={`${count} tickets`}>
          {count}
        </span>
      </h2>
      {count > tickets.length && (
        <p class="lane-limit">
          Showing {tickets.length} of {count}
        </p>
      )}
      <ol ref={listRef} class="lane-cards" data-lane={laneKey}>
        {tickets.map((ticket, index) => (
          <Card
            key={ticket.id}
            ticket={ticket}
            project={project}
            assignee={ticket.assigned_to === null ? undefined : users.get(ticket.assigned_to)}
            canMove={canMove}
            onMoveMenu={() => onMoveMenu(ticket, index)}
          />
        ))}
      </ol>
      {tickets.length === 0 && <p class="lane-empty muted">No tickets</p>}
    </section>
  );
}

export default function BoardScreen({ query }: ScreenProps) {
  const project = currentProject.value;
  const priority = query.get('priority') ?? '';
  const assignee = query.get('assignee') ?? '';
  const [board, setBoard] = useState<Board | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [moveTarget, setMoveTarget] = useState<MoveTarget | null>(null);
  const boardRef = useRef<Board | null>(null);
  boardRef.current = board;
  const canMove = can('tickets.write');

  useEffect(() => {
    call(api.GET('/users'))
      .then((answer) => setUsers(answer.users.filter((user) => user.is_active)))
      .catch(showError);
  }, []);

  useEffect(() => {
    if (!project) return;
    let current = true;
    setBoard(null);
    call(
      api.GET('/board', {
        params: {
          query: {
            project_id: project.id,
            lane_limit: LANE_LIMIT,
            ...(priority ? { priority: priority as Priority } : {}),
            ...(assignee ? { assignee: Number(assignee) } : {}),
          },
        },
      }),
    )
      .then((answer) => {
        if (current) setBoard(answer);
      })
      .catch(showError);
    return () => {
      current = false;
    };
  }, [project?.id, priority, assignee]);

  async function move(ticketId: number, toLane: string, toIndex: number) {
    const before = boardRef.current;
    if (!before || !project) return;
    const after = moveOnBoard(before, ticketId, toLane, toIndex);
    if (after === before) return;
    setBoard(after);
    const lane = after.lanes[toLane] ?? [];
    const index = lane.findIndex((ticket) => ticket.id === ticketId);
    try {
      const answer = await call(
        api.PATCH('/tickets/{id}/status', {
          params: { path: { id: ticketId }, query: { project_id: project.id } },
          body: { status: toLane, ...placement(lane, index) },
        }),
      );
      setBoard(
        (shown) =>
          shown && {
            ...shown,
            lanes: Object.fromEntries(
              Object.entries(shown.lanes).map(([key, tickets]) => [
                key,
                tickets.map((ticket) => (ticket.id === ticketId ? answer.ticket : ticket)),
              ]),
            ),
          },
      );
    } catch (error) {
      setBoard(before);
      showError(error);
    }
  }

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  const userById = new Map(users.map((user) => [user.id, user]));
  const total = board?.counts.total;
  return (
    <section class="screen board-screen">
      <div class="screen-head">
        <h1>
          Board <span class="muted">{project.name}</span>
        </h1>
        <div class="filters">
          <label>
            Priority
            <select value={priority} onChange={(event) => setQuery({ priority: event.currentTarget.value })}>
              <option value="">Any</option>
              <Options options={optionsOf(PRIORITIES, (value) => value[0]!.toUpperCase() + value.slice(1))} />
            </select>
          </label>
          <label>
            Assignee
            <select value={assignee} onChange={(event) => setQuery({ assignee: event.currentTarget.value })}>
              <option value="">Anyone</option>
              <Options options={users.map((user) => ({ value: String(user.id), label: user.name }))} />
            </select>
          </label>
        </div>
      </div>
      {!board ? (
        <Loading what="the board" />
      ) : (
        <>
          <p class="muted board-total">{total === 1 ? '1 ticket' : `${total ?? 0} tickets`}</p>
          <div class="board" data-board-ready="true">
            {Object.entries(board.lanes).map(([key, tickets]) => (
              <Lane
                key={key}
                project={project}
                laneKey={key}
                label={laneLabel(project, key)}
                tickets={tickets}
                count={board.counts[key] ?? tickets.length}
                users={userById}
                canMove={canMove}
                onDrop={(id, lane, index) => void move(id, lane, index)}
                onMoveMenu={(ticket, index) => setMoveTarget({ ticket, lane: ticket.status, index })}
              />
            ))}
          </div>
          <MoveDialog
            target={moveTarget}
            board={board}
            project={project}
            onClose={() => setMoveTarget(null)}
            onMove={(lane, index) => {
              const target = moveTarget;
              setMoveTarget(null);
              if (target) void move(target.ticket.id, lane, index);
            }}
          />
        </>
      )}
    </section>
  );
}
