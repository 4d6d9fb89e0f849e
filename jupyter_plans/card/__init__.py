"""The card: what a plan card shows, for every surface that shows one (the widget, the saved
output, the server's card route and the Plan panel). `view` the card's data, `html` the static
card of the saved output, `guards` what the card says of the guards."""
