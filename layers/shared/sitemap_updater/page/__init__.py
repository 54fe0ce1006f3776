"""The page: one ``<url>`` of a sitemap, declared once (``model``), its fields' rules
(``normalize``), the one ordering rule of its changes (``order``), its ``<url>`` element
(``render``) and the JSON Schema of a message (``schema``)."""
