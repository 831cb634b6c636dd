/**
 * The ticket screens' group of checkboxes (a multi-select custom field), with the group's errors
 * (the other labelled controls are ui/field.tsx's).
 */
import { useId } from 'preact/hooks';
import { ErrorList, type Option } from '../../ui/field';

/** Checkboxes under one legend (a multi-select), with the group's errors. */
export function CheckboxGroup({
  legend,
  options,
  values,
  onValues,
  errors,
}: {
  legend: string;
  options: readonly Option[];
  values: string[];
  onValues: (values: string[]) => void;
  errors?: string[] | undefined;
}) {
  const id = useId();
  return (
    <fieldset
      class="field ticket-checkbox-group"
      aria-describedby={errors?.length ? `${id}-errors` : undefined}
    >
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} class="ticket-checkbox">
          <input
            type="checkbox"
            checked={values.includes(option.value)}
            onChange={(event) =>
              onValues(
                event.currentTarget.checked
                  ? [...values, option.value]
                  : values.filter((value) => value !== option.value),
              )
            }
          />
          {option.label}
        </label>
      ))}
      <ErrorList id={`${id}-errors`} errors={errors} />
    </fieldset>
  );
}
