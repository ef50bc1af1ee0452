// The client's stores' machinery: subscribing (TanStack Query's `Subscribable`), batching notifications, counting work in flight.
export { Subscribable } from './subscribable.ts'
export { NotifyBatcher, scheduleNotify, type NotifyScheduler } from './scheduleNotify.ts'
export { Work } from './work.ts'
