// A reviewer's page: the approval a signed review link shows, and the reviewer's answer.
export { ReviewClient, type ReviewClientOptions, type ReviewState } from './reviewClient.ts'
