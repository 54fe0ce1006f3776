"""The text of <url> elements: the one element template, the block renderer, and fragments
(one <url> element each) of published files."""
