/** Activity: not built yet (the console's route table and nav already point here). */
import { NotBuiltYet } from '../ui/empty-state';

export default function Screen() {
  return <NotBuiltYet screen="Activity" />;
}
