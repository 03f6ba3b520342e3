export const en = {
  pages: { playground: 'Playground', chat: 'Chat', chat2link: 'Chat link' },
  group: 'Group', userGroup: "User's group", model: 'Model', temperature: 'Temperature ({{value}})', maxTokens: 'Max tokens (0 = no limit)',
  systemPrompt: 'System prompt', empty: 'Send a message to start', placeholder: 'Type a message, Enter to send, Shift+Enter for a new line',
  send: 'Send', stop: 'Stop', clear: 'Clear context', thinking: 'Thinking…', showSettings: 'Show settings', hideSettings: 'Hide settings',
  parseFailed: 'Failed to parse chat data', expired: 'Not logged in or login expired, please log in again', networkError: 'Network error, please retry',
};
