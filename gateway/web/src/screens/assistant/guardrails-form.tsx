/**
 * The guardrail form: every setting of the document, each input bound to its dotted path, so a 422's
 * `validation_errors` land beside the field they name (and any other path in a list at the top).
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { GUARDRAIL_BOUNDS, guardrailBound, thresholdBound } from '@tix/contract';
import type { components } from '../../generated/api';
import type { Project } from '../../projects';
import { ErrorList } from '../../ui/field';
import { ACTION_TYPES, actionLabel, type ActionType } from './format';
import { getAt, MODES, PRIORITIES, type Guardrails } from './guardrails-model';

type User = components['schemas']['User'];
type TicketType = components['schemas']['TicketType'];

export interface FormState {
  draft: Guardrails;
  errors: Record<string, string[]>;
  set: (path: string, value: unknown) => void;
}

function described(id: string, hint: string | undefined, messages: string[] | undefined) {
  return (
    [hint ? `${id}-hint` : '', messages?.length ? `${id}-errors` : ''].filter(Boolean).join(' ') || undefined
  );
}

/** A number input; its range and step are the contract's for `path`. */
function NumberSetting({
  form,
  path,
  label,
  hint,
}: {
  form: FormState;
  path: string;
  label: string;
  hint?: string;
}) {
  const id = useId();
  const { min, max, step } = guardrailBound(path)!;
  const value = getAt(form.draft, path);
  const messages = form.errors[path];
  return (
    <div class="field guardrail-field" data-path={path}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        name={path}
        type="number"
        min={min}
        max={max}
        step={step}
        value={typeof value === 'number' || typeof value === 'string' ? String(value) : ''}
        onInput={(event) => {
          const parsed = event.currentTarget.valueAsNumber;
          form.set(path, Number.isFinite(parsed) ? parsed : event.currentTarget.value);
        }}
        aria-invalid={messages?.length ? 'true' : undefined}
        aria-describedby={described(id, hint, messages)}
      />
      <ErrorList id={`${id}-errors`} errors={messages} />
    </div>
  );
}

function ModeSetting({ form, path, label }: { form: FormState; path: string; label: string }) {
  const id = useId();
  const messages = form.errors[path];
  return (
    <div class="field guardrail-field" data-path={path}>
      <label for={id}>{label}</label>
      <select
        id={id}
        name={path}
        value={String(getAt(form.draft, path))}
        onChange={(event) => form.set(path, event.currentTarget.value)}
        aria-invalid={messages?.length ? 'true' : undefined}
        aria-describedby={described(id, undefined, messages)}
      >
        {MODES.map((mode) => (
          <option key={mode} value={mode}>
            {mode === 'off' ? 'Off (shadow)' : mode === 'suggest' ? 'Suggest to a person' : 'Act on its own'}
          </option>
        ))}
      </select>
      <ErrorList id={`${id}-errors`} errors={messages} />
    </div>
  );
}

function CheckboxSetting({ form, path, label }: { form: FormState; path: string; label: string }) {
  const id = useId();
  const messages = form.errors[path];
  return (
    <div class="guardrail-check" data-path={path}>
      <input
        id={id}
        name={path}
        type="checkbox"
        checked={getAt(form.draft, path) === true}
        onChange={(event) => form.set(path, event.currentTarget.checked)}
        aria-describedby={described(id, undefined, messages)}
      />
      <label for={id}>{label}</label>
      <ErrorList id={`${id}-errors`} errors={messages} />
    </div>
  );
}

/** A list chosen from options, by checkboxes; `anyLabel` makes null ("any") a choice too. */
function ChoiceList<T extends string | number>({
  form,
  path,
  label,
  options,
  anyLabel,
}: {
  form: FormState;
  path: string;
  label: string;
  options: { value: T; label: string }[];
  anyLabel?: string;
}) {
  const id = useId();
  const value = getAt(form.draft, path);
  const chosen = Array.isArray(value) ? (value as T[]) : null;
  const messages = form.errors[path];
  return (
    <fieldset
      class="guardrail-choices"
      data-path={path}
      aria-describedby={described(id, undefined, messages)}
    >
      <legend>{label}</legend>
      {anyLabel && (
        <label>
          <input
            type="checkbox"
            checked={chosen === null}
            onChange={(event) => form.set(path, event.currentTarget.checked ? null : [])}
          />{' '}
          {anyLabel}
        </label>
      )}
      {options.map((option) => (
        <label key={option.value}>
          <input
            type="checkbox"
            disabled={chosen === null}
            checked={chosen === null || chosen.includes(option.value)}
            onChange={(event) => {
              const list = chosen ?? [];
              form.set(
                path,
                event.currentTarget.checked
                  ? [...list, option.value]
                  : list.filter((entry) => entry !== option.value),
              );
            }}
          />{' '}
          {option.label}
        </label>
      ))}
      <ErrorList id={`${id}-errors`} errors={messages} />
    </fieldset>
  );
}

/** A list of tags typed as text, comma separated; `nullable` adds "any tag" (null). */
function TagListSetting({
  form,
  path,
  label,
  hint,
  nullable = false,
}: {
  form: FormState;
  path: string;
  label: string;
  hint: string;
  nullable?: boolean;
}) {
  const id = useId();
  const value = getAt(form.draft, path);
  const list = Array.isArray(value) ? (value as string[]) : null;
  const messages = form.errors[path];
  return (
    <div class="field guardrail-field" data-path={path}>
      <label for={id}>{label}</label>
      <p class="field-hint" id={`${id}-hint`}>
        {hint}
      </p>
      {nullable && (
        <label class="guardrail-any">
          <input
            type="checkbox"
            checked={list === null}
            onChange={(event) => form.set(path, event.currentTarget.checked ? null : [])}
          />{' '}
          Any tag
        </label>
      )}
      <input
        id={id}
        name={path}
        type="text"
        disabled={list === null}
        value={list?.join(', ') ?? ''}
        onChange={(event) =>
          form.set(
            path,
            event.currentTarget.value
              .split(',')
              .map((tag) => tag.trim())
              .filter(Boolean),
          )
        }
        aria-invalid={messages?.length ? 'true' : undefined}
        aria-describedby={described(id, hint, messages)}
      />
      <ErrorList id={`${id}-errors`} errors={messages} />
    </div>
  );
}

function Group({ title, children }: { title: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class="guardrail-group" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <div class="guardrail-grid">{children}</div>
    </section>
  );
}

const priorityOptions = PRIORITIES.map((value) => ({
  value,
  label: value[0]!.toUpperCase() + value.slice(1),
}));

function ActionSettings({ form, type, users }: { form: FormState; type: ActionType; users: User[] }) {
  const base = `actions.${type}`;
  const threshold = thresholdBound(type);
  return (
    <Group title={actionLabel(type)}>
      <ModeSetting form={form} path={`${base}.mode`} label="Mode" />
      <NumberSetting
        form={form}
        path={`${base}.threshold`}
        label="Threshold"
        hint={`Confidence from which it applies, ${threshold.min} to ${threshold.max}`}
      />
      {type === 'set_priority' && (
        <>
          <ChoiceList
            form={form}
            path={`${base}.allowed_values`}
            label="Priorities it may set"
            options={priorityOptions}
          />
          <CheckboxSetting form={form} path={`${base}.never_downgrade`} label="Never lower a priority" />
        </>
      )}
      {type === 'assign' && (
        <>
          <ChoiceList
            form={form}
            path={`${base}.allowed_user_ids`}
            label="People it may assign"
            anyLabel="Anyone active"
            options={users.map((user) => ({ value: user.id, label: user.name }))}
          />
          <NumberSetting
            form={form}
            path={`${base}.max_open_per_user`}
            label="Most open tickets per person"
          />
        </>
      )}
      {type === 'add_tags' && (
        <TagListSetting
          form={form}
          path={`${base}.allowed_tags`}
          label="Tags it may add"
          hint="Comma separated"
          nullable
        />
      )}
      {type === 'close_duplicate' && (
        <>
          <NumberSetting
            form={form}
            path={`${base}.max_age_days`}
            label="Original at most this many days old"
          />
          <CheckboxSetting
            form={form}
            path={`${base}.require_same_type`}
            label="Only of the same ticket type"
          />
        </>
      )}
    </Group>
  );
}

const sampleRate = GUARDRAIL_BOUNDS['review.sample_rate'];

/** Every setting of the guardrails, grouped as the document is. */
export function GuardrailsFields({
  form,
  project,
  users,
  ticketTypes,
}: {
  form: FormState;
  project: Project;
  users: User[];
  ticketTypes: TicketType[];
}) {
  return (
    <>
      {ACTION_TYPES.map((type) => (
        <ActionSettings key={type} form={form} type={type} users={users} />
      ))}
      <Group title="Which tickets">
        <ChoiceList
          form={form}
          path="scope.ticket_type_ids"
          label="Ticket types"
          anyLabel="Any type"
          options={ticketTypes.map((type) => ({ value: type.id, label: type.name }))}
        />
        <ChoiceList
          form={form}
          path="scope.statuses"
          label="Statuses"
          anyLabel="Any status"
          options={project.statuses.map((status) => ({ value: status.slug, label: status.label }))}
        />
        <TagListSetting
          form={form}
          path="scope.exclude_tags"
          label="Leave alone tickets tagged"
          hint="Comma separated"
        />
        <ChoiceList
          form={form}
          path="scope.exclude_priorities"
          label="Leave alone tickets of priority"
          options={priorityOptions}
        />
      </Group>
      <Group title="Limits">
        <NumberSetting form={form} path="limits.max_actions_per_hour" label="Actions per hour at most" />
        <NumberSetting form={form} path="limits.max_actions_per_ticket" label="Actions per ticket at most" />
      </Group>
      <Group title="Review">
        <NumberSetting
          form={form}
          path="review.sample_rate"
          label="Share of actions reviewed"
          hint={`${sampleRate.min} to ${sampleRate.max}; 1 reviews every action`}
        />
        <NumberSetting form={form} path="review.always_review_below" label="Always review below confidence" />
      </Group>
      <Group title="Auto-pause">
        <NumberSetting form={form} path="auto_pause.revert_rate" label="Pause a type at this revert rate" />
        <NumberSetting form={form} path="auto_pause.min_actions" label="From this many actions" />
        <NumberSetting form={form} path="auto_pause.window_hours" label="Over the last hours" />
      </Group>
    </>
  );
}
