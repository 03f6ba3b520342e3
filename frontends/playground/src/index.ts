// Standalone entry for development; the shell loads ./App through Module Federation instead.
import('./bootstrap');
