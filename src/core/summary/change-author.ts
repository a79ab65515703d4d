/** Who made a change of a summary's drift (a service's or a key's), as the activity log names them. */
export interface ChangeAuthor {
  /** 'bot': an API call with this bot's own key; 'api-key': with any other key; 'user': in the console. */
  actor: 'bot' | 'api-key' | 'user' | 'support' | 'system' | 'unknown';
  /** The key id ('api-key'), the email or else the user id ('user'); absent otherwise. */
  name?: string;
  /** When (epoch ms): the latest activity of this author that can be the change. */
  at: number;
}
