/** What every screen receives from the router: the path's parameters and the query. */
export interface ScreenProps {
  params: Record<string, string>;
  query: URLSearchParams;
}
