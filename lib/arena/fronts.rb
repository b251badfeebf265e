# frozen_string_literal: true

# Proxies in front of a server: nginx, caddy, thruster.
require_relative "fronts/front"
require_relative "fronts/nginx"
require_relative "fronts/caddy"
require_relative "fronts/thruster"
require_relative "fronts/fronts"
