// The one event the components send up: "select this turn or request". The app owns selection.

export interface SelectDetail {
  turn?: number;
  request?: number;
}

export function selectEvent(detail: SelectDetail): CustomEvent<SelectDetail> {
  return new CustomEvent('pi-select', { detail, bubbles: true, composed: true });
}
