"""Rules, episodes and leads: from positions judged against zones to infraction leads."""
