"""Language tags: the hreflang rule (``tags``) and the registry's language subtags it checks
against (``registry``, generated)."""
