/** The console's button: a kind for its weight, and `busy` while its action runs (disabled, labelled). */
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import './button.css';

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'class'> & {
  kind?: 'primary' | 'secondary' | 'danger' | 'quiet';
  busy?: boolean;
  children: ComponentChildren;
};

export function Button({
  kind = 'secondary',
  busy = false,
  type = 'button',
  disabled,
  children,
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      class={`button button-${kind}`}
      disabled={busy || Boolean(disabled)}
      aria-busy={busy ? 'true' : undefined}
    >
      {children}
    </button>
  );
}
