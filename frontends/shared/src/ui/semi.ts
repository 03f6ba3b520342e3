// Semi's colour, font and dark-mode variables; the per-component CSS below only references them. The SCSS
// source, so the build's Semi plugin compiles it with the console theme's tokens (@semi-bot/semi-theme-default).
import '@douyinfe/semi-ui/lib/es/_base/base.scss';
// Semi components come to every app through the kit. Importing them by path keeps the shared kit chunk
// to the components the console uses, instead of Semi's whole index (AI chat, editors, lottie: ~3 MB),
// while every app still gets the same component instances (one Toast list, one locale context).
export { default as Avatar } from '@douyinfe/semi-ui/lib/es/avatar';
export { default as Badge } from '@douyinfe/semi-ui/lib/es/badge';
export { default as Banner } from '@douyinfe/semi-ui/lib/es/banner';
export { default as Button } from '@douyinfe/semi-ui/lib/es/button';
export { default as Card } from '@douyinfe/semi-ui/lib/es/card';
export { default as ConfigProvider } from '@douyinfe/semi-ui/lib/es/configProvider';
export { default as Divider } from '@douyinfe/semi-ui/lib/es/divider';
export { default as Dropdown } from '@douyinfe/semi-ui/lib/es/dropdown';
export { default as Empty } from '@douyinfe/semi-ui/lib/es/empty';
export { default as Input } from '@douyinfe/semi-ui/lib/es/input';
export { Layout } from '@douyinfe/semi-ui/lib/es/layout';
export { default as LocaleProvider } from '@douyinfe/semi-ui/lib/es/locale/localeProvider';
export { default as Modal } from '@douyinfe/semi-ui/lib/es/modal';
export { default as Nav } from '@douyinfe/semi-ui/lib/es/navigation';
export { default as Popover } from '@douyinfe/semi-ui/lib/es/popover';
export { default as Radio } from '@douyinfe/semi-ui/lib/es/radio';
export { default as RadioGroup } from '@douyinfe/semi-ui/lib/es/radio/radioGroup';
export { default as Space } from '@douyinfe/semi-ui/lib/es/space';
export { default as Spin } from '@douyinfe/semi-ui/lib/es/spin';
export { default as Tag } from '@douyinfe/semi-ui/lib/es/tag';
export { default as Toast } from '@douyinfe/semi-ui/lib/es/toast';
export { default as Tooltip } from '@douyinfe/semi-ui/lib/es/tooltip';
export { default as Typography } from '@douyinfe/semi-ui/lib/es/typography';
export { default as semiZhCN } from '@douyinfe/semi-ui/lib/es/locale/source/zh_CN';
export { default as semiEnUS } from '@douyinfe/semi-ui/lib/es/locale/source/en_US';
