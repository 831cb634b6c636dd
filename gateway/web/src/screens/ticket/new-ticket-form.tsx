/**
 * The "New ticket" form of the ticket list: the type (its custom fields follow from its
 * field_schema), title, description, priority, assignee, tags, the requester and CCs (a customer
 * found by search, or a typed address the server finds or creates) and the custom fields, checked
 * here first and then by the server (POST /tickets; a 422 is shown beside each field).
 */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import type { Project } from '../../projects';
import { Button } from '../../ui/button';
import { Field, FormError, SelectField, TextAreaField } from '../../ui/field';
import { useSubmit } from '../../ui/submit';
import { CustomerPicker } from '../customer/customer-picker';
import {
  ccBody,
  listErrors,
  pickedLabel,
  requesterBody,
  samePick,
  type PickedCustomer,
} from '../customer/model';
import {
  checkCustomFields,
  CustomFieldInput,
  draftsOf,
  orderedFields,
  valuesOf,
  type CustomFieldDrafts,
} from './custom-fields';
import {
  assignableUsers,
  capitalised,
  parseTags,
  PRIORITIES,
  type Priority,
  type Ticket,
  type TicketType,
  type User,
} from './model';

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 5000;

function defaultType(types: TicketType[]): TicketType | undefined {
  return types.find((type) => type.is_default) ?? types[0];
}

export function NewTicketForm({
  project,
  types: allTypes,
  users,
  onCreated,
  onCancel,
}: {
  project: Project;
  types: TicketType[];
  users: User[];
  onCreated: (ticket: Ticket) => void;
  onCancel: () => void;
}) {
  const types = allTypes.filter((type) => type.retired_at === null);
  const [typeId, setTypeId] = useState(() => defaultType(types)?.id ?? 0);
  const type = types.find((candidate) => candidate.id === typeId);
  const schema = type ? orderedFields(type.field_schema) : [];
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [priority, setPriority] = useState<Priority>('medium');
  const [assignee, setAssignee] = useState('');
  const [tags, setTags] = useState('');
  const [requester, setRequester] = useState<PickedCustomer | null>(null);
  const [cc, setCc] = useState<PickedCustomer[]>([]);
  const [drafts, setDrafts] = useState<CustomFieldDrafts>(() => draftsOf(schema));
  const { busy, errors, setErrors, run, field } = useSubmit();

  function chooseType(id: number) {
    setTypeId(id);
    const chosen = types.find((candidate) => candidate.id === id);
    setDrafts(draftsOf(chosen ? chosen.field_schema : []));
    setErrors({});
  }

  function clientErrors(customFields: Record<string, unknown>): Record<string, string[]> {
    const found: Record<string, string[]> = {};
    if (!type) found.ticket_type_id = ['Choose a ticket type'];
    if (title.trim() === '') found.title = ['Title is required'];
    else if ([...title.trim()].length > TITLE_MAX)
      found.title = [`Title must be at most ${TITLE_MAX} characters`];
    if ([...description].length > DESCRIPTION_MAX) {
      found.description = [`Description must be at most ${DESCRIPTION_MAX} characters`];
    }
    return { ...found, ...checkCustomFields(schema, customFields) };
  }

  async function submit(event: Event) {
    event.preventDefault();
    const customFields = valuesOf(schema, drafts);
    const found = clientErrors(customFields);
    setErrors(found);
    if (Object.keys(found).length > 0 || !type) return;
    await run(async () => {
      const answer = await call(
        api.POST('/tickets', {
          params: { query: { project_id: project.id } },
          body: {
            ticket_type_id: type.id,
            title: title.trim(),
            ...(description.trim() ? { description } : {}),
            priority,
            ...(assignee ? { assigned_to: Number(assignee) } : {}),
            tags: parseTags(tags),
            ...requesterBody(requester),
            ...ccBody(cc),
            custom_fields: customFields,
          },
        }),
      );
      onCreated(answer.ticket);
    });
  }

  if (types.length === 0) {
    return <p class="notice">This project has no ticket types yet: an administrator adds one first.</p>;
  }
  const errorCount = Object.keys(errors).length;
  return (
    <form
      class="form tickets-new"
      aria-label="New ticket"
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h2>New ticket</h2>
      <FormError
        message={errorCount > 0 ? 'Some fields need attention: see the messages below them.' : null}
      />
      <SelectField
        label="Type"
        options={types.map((candidate) => ({ value: String(candidate.id), label: candidate.name }))}
        {...field('ticket_type_id', String(typeId), (value) => chooseType(Number(value)))}
      />
      <Field label="Title" {...field('title', title, setTitle)} required />
      <TextAreaField
        label="Description"
        {...field('description', description, setDescription)}
        hint="Markdown"
        rows={4}
      />
      <div class="tickets-new-row">
        <SelectField
          label="Priority"
          options={PRIORITIES.map((value) => ({ value, label: capitalised(value) }))}
          {...field('priority', priority, (value) => setPriority(value as Priority))}
        />
        <SelectField
          label="Assignee"
          options={[
            { value: '', label: 'Unassigned' },
            ...assignableUsers(users).map((user) => ({ value: String(user.id), label: user.name })),
          ]}
          {...field('assigned_to', assignee, setAssignee)}
        />
      </div>
      <Field label="Tags" {...field('tags', tags, setTags)} hint="Separated by commas" />
      <fieldset class="tickets-new-people">
        <legend>Requester and CC</legend>
        {requester ? (
          <p class="customer-actions">
            <span>
              Requester: <strong>{pickedLabel(requester)}</strong>
            </span>
            <Button kind="quiet" onClick={() => setRequester(null)}>
              Remove requester
            </Button>
          </p>
        ) : (
          <CustomerPicker
            label="Requester"
            hint="Search a customer by name or address, or type a new address."
            allowNew
            errors={listErrors(errors, 'requester_id', 'requester')}
            onPick={setRequester}
          />
        )}
        {cc.length > 0 && (
          <ul class="customer-people" aria-label="CC">
            {cc.map((picked) => (
              <li key={pickedLabel(picked)}>
                <span>{pickedLabel(picked)}</span>
                <Button
                  kind="quiet"
                  aria-label={`Remove ${pickedLabel(picked)} from CC`}
                  onClick={() => setCc((current) => current.filter((each) => !samePick(each, picked)))}
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
        <CustomerPicker
          label="Add to CC"
          allowNew
          exclude={cc.flatMap((each) => ('customer' in each ? [each.customer.id] : []))}
          errors={listErrors(errors, 'cc', 'cc_emails')}
          onPick={(picked) =>
            setCc((current) =>
              current.some((each) => samePick(each, picked)) ? current : [...current, picked],
            )
          }
        />
      </fieldset>
      {schema.length > 0 && (
        <fieldset class="tickets-new-custom">
          <legend>{type?.name} fields</legend>
          {schema.map((field) => (
            <CustomFieldInput
              key={`${typeId}-${field.name}`}
              field={field}
              draft={drafts[field.name] ?? ''}
              onDraft={(draft) => setDrafts((current) => ({ ...current, [field.name]: draft }))}
              errors={errors[`custom_fields.${field.name}`]}
            />
          ))}
          {errors.custom_fields && <FormError message={errors.custom_fields.join(' ')} />}
        </fieldset>
      )}
      <div class="dialog-actions">
        <Button kind="primary" type="submit" busy={busy}>
          Create ticket
        </Button>
        <Button kind="quiet" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
