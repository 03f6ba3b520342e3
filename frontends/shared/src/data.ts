export * from './ui/data';
