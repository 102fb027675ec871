// The in-page confirmation dialog (a native <dialog>, never window.confirm): a title, one
// sentence, optional text fields. Resolves to the field values on Confirm, or null on Cancel
// or Escape. Focus returns to the control that opened it.
import { $, el } from './dom.js';

export function ask({ title, text, confirmLabel = 'Confirm', fields = [] }) {
  const dialog = $('action-dialog');
  const form = $('dialog-form');
  const opener = document.activeElement;
  $('dialog-title').textContent = title;
  $('dialog-text').textContent = text;
  $('dialog-confirm').textContent = confirmLabel;
  const holder = $('dialog-fields');
  holder.replaceChildren();
  const inputs = fields.map((f) => {
    const id = `dialog-field-${f.name}`;
    const input = el('textarea', { id, name: f.name, rows: 3, maxlength: f.max, required: true });
    holder.append(el('label', { for: id, text: f.label }), input);
    return input;
  });
  return new Promise((resolve) => {
    const done = (value) => {
      form.removeEventListener('submit', onSubmit);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      if (opener && typeof opener.focus === 'function') opener.focus();
      resolve(value);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      if (event.submitter && event.submitter.value === 'cancel') return done(null);
      if (!form.reportValidity()) return;
      done(Object.fromEntries(inputs.map((i) => [i.name, i.value.trim()])));
    };
    const onCancel = (event) => {
      event.preventDefault();
      done(null);
    };
    form.addEventListener('submit', onSubmit);
    dialog.addEventListener('cancel', onCancel);
    dialog.showModal();
    (inputs[0] ?? $('dialog-confirm')).focus();
  });
}
