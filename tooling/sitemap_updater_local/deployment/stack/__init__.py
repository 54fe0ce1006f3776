"""template.yaml made real on moto: the template read offline with its intrinsic functions
resolved (``template``), its DynamoDB tables (``tables``) and its other stateful resources
(``provision``)."""
